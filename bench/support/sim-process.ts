/**
 * Runs the VPP simulator on the socket given as argv[2] until SIGTERM; signals readiness over IPC.
 *   --interface NAME     an interface present at start (repeatable), e.g. an underlay NIC or a VM
 *                        port attached as `{type: interface}`
 *   --steering-events    one JSON line per handled sr_steering_add_del, sent to the parent over IPC
 *                        as { steering: LINES } (batched per turn of the event loop):
 *                        {"t":MS,"prefix":"a.b.c.d/len","table":N,"bsid":"…","is_del":B,"retval":N},
 *                        t the wall clock (performance.timeOrigin + performance.now()) when the
 *                        reply was made, comparable to another process's clock on this machine
 */
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { VppSimulator } from '../../src/vpp/sim/index.js';
import { Dispatcher, type ApiCall, type Handler } from '../../src/vpp/sim/dispatcher.js';
import { fromApiAddress, ipText } from '../../src/vpp/sim/ip-addr.js';
import type { Message, MessageDef } from '../../src/vpp/codec/schema.js';
import { msg } from '../../src/vpp/messages/index.js';

const [socketPath, ...rest] = process.argv.slice(2);
if (!socketPath) throw new Error('usage: sim-process SOCKET [--interface NAME]... [--steering-events]');
const { values } = parseArgs({
  args: rest,
  options: {
    interface: { type: 'string', multiple: true },
    'steering-events': { type: 'boolean' },
  },
  strict: true,
});
if (values['steering-events']) reportSteering();
const sim = await VppSimulator.start({
  socketPath,
  checkHostInterfaces: false,
  initialInterfaces: (values.interface ?? []).map((name) => ({ name })),
});
process.send?.('ready');
// The parent can ask for a VPP restart (state lost, ids reshuffled), as benchmarks need.
process.on('message', (m: unknown) => {
  if (m === 'restart') void sim.restart({ reshuffleIds: true }).then(() => process.send?.('restarted'));
});
process.on('SIGTERM', () => {
  void sim.close().then(() => process.exit(0));
});
// A parent that died without stopping it (a benchmark killed by its memory cgroup's OOM killer)
// leaves no simulator behind.
process.on('disconnect', () => {
  void sim.close().then(() => process.exit(0));
});

/**
 * Wraps the sr_steering_add_del handler as the simulator registers it (before it starts), so each
 * reply it makes is also written as an event. The simulator has no observer API, and the event
 * is the benchmark's, not VPP's: it stays here. Lines are sent in batches (one message per turn
 * of the event loop), the time is taken per reply. Over IPC, not stdout: Node writes to a stdout
 * pipe synchronously, so a parent slow to read (20 of them on a loaded 2-core VM) stopped the
 * simulator itself, and VPP's answers with it.
 */
/** `m` as sr_steering_add_del's definition decoded it: the dispatcher decodes with the call's. */
function isSteeringRequest(
  m: Message<MessageDef>,
  call: ApiCall<MessageDef>,
): m is Message<typeof msg.sr_steering_add_del> {
  return call.def === msg.sr_steering_add_del;
}

function reportSteering(): void {
  let pending = '';
  const flush = (): void => {
    const out = pending;
    pending = '';
    process.send?.({ steering: out });
  };
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with its own this
  const on = Dispatcher.prototype.on as (this: Dispatcher, def: MessageDef, h: Handler<MessageDef>) => void;
  const wrapped = function (this: Dispatcher, def: MessageDef, handler: Handler<MessageDef>): void {
    if (def.name !== msg.sr_steering_add_del.name) return on.call(this, def, handler);
    const observed: Handler<MessageDef> = (m, call) => {
      const reply = call.reply.bind(call);
      const watched = Object.create(call) as typeof call;
      watched.reply = (values) => {
        reply(values);
        if (!isSteeringRequest(m, call)) return;
        const s = m;
        if (pending === '') setImmediate(flush);
        pending += `${JSON.stringify({
          t: performance.timeOrigin + performance.now(),
          prefix: `${ipText(fromApiAddress(s.prefix.address))}/${s.prefix.len}`,
          table: s.table_id >>> 0,
          bsid: s.bsid_addr,
          is_del: s.is_del,
          retval: (values as { retval: number }).retval,
        })}\n`;
      };
      handler(m, watched);
    };
    on.call(this, def, observed);
  };
  Dispatcher.prototype.on = wrapped as typeof Dispatcher.prototype.on;
}
