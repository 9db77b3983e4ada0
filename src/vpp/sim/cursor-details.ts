/**
 * VPP's REPLY_AND_DETAILS_MACRO for a `X_get` service over a pool (vlibapi/api_helper_macros.h):
 * details from the cursor on, then the reply with the next cursor, ~0 when done. A cursor on a
 * free slot moves to the next used one; past the end the reply says INVALID_VALUE (-7). An empty
 * pool answers 0 with cursor 0 (the macro returns before its loop). VPP stops after a time budget
 * (vl_api_process_may_suspend) and answers EAGAIN with the cursor to go on from; here after
 * `pageLimit` details (0: no limit), so clients' paging can be tested.
 */
import { Rv } from './retval.js';
import type { VppPool } from './vpp-pool.js';

const NONE = 0xffffffff;

export function replyAndDetails<T>(
  call: {
    readonly reg: unknown;
    reply(values: { retval: number; cursor: number }): void;
  },
  pool: VppPool<T>,
  cursorIn: number,
  pageLimit: number,
  sendDetails: (item: T) => void,
): void {
  if (pool.size === 0) return call.reply({ retval: 0, cursor: 0 });
  if (!call.reg) return;
  let rv = 0;
  let cursor = cursorIn >>> 0;
  if (!pool.has(cursor)) {
    cursor = pool.nextIndex(cursor);
    if (cursor < 0) rv = Rv.INVALID_VALUE;
  }
  let sent = 0;
  while (cursor >= 0) {
    sendDetails(pool.get(cursor) as T);
    sent++;
    cursor = pool.nextIndex(cursor);
    if (pageLimit > 0 && sent >= pageLimit) {
      if (cursor >= 0) rv = Rv.EAGAIN;
      break;
    }
  }
  call.reply({ retval: rv, cursor: cursor < 0 ? NONE : cursor });
}
