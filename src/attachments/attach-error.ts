/**
 * Where the attachment runtime meets the local API: the code the container runtime should see
 * for each way an ADD, DEL or CHECK can fail (a netns problem, a pod port VPP would not take,
 * VPP away). vppnet-cni prints that code unchanged.
 */
import { AgentApiError, AgentErrorCode } from '../agent-api/errors.js';
import { NetnsError } from '../netns/index.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { VppError } from '../vpp/errors.js';
import { PodApplyError } from './pod-dataplane.js';

/** VNET_API_ERROR_SYSCALL_ERROR_1, tap_create_v3's answer when /dev/vhost-net cannot be opened. */
const TAP_NO_VHOST_NET = -11;

/** The answer the runtime should see for a failed step. */
export function toAttachError(err: unknown): AgentApiError {
  if (err instanceof AgentApiError) return err;
  if (err instanceof NetnsError) {
    switch (err.code) {
      case 'VPPNET_ERR_POD_IFNAME_EXISTS':
        return new AgentApiError(AgentErrorCode.POD_IFNAME_EXISTS, err.message);
      case 'VPPNET_ERR_NETNS_NOT_FOUND':
      case 'VPPNET_ERR_NOT_A_NETNS':
        return new AgentApiError(AgentErrorCode.NETNS_NOT_FOUND, err.message);
      case 'VPPNET_ERR_INVALID_ARGUMENT':
      case 'VPPNET_ERR_HOST_NETNS':
      case 'VPPNET_ERR_NOT_POD_NETNS':
        return new AgentApiError(AgentErrorCode.INVALID_NETWORK_CONFIG, err.message);
      default:
        return new AgentApiError(AgentErrorCode.INTERNAL, err.message);
    }
  }
  if (err instanceof PodApplyError) {
    return new AgentApiError(
      err.notReady ? AgentErrorCode.TRY_AGAIN_LATER : AgentErrorCode.INTERNAL,
      'cannot plug the pod into the service bridge',
      err.message,
      { cause: err },
    );
  }
  if (
    err instanceof VppError &&
    (err.code === 'VPPNET_ERR_NOT_CONNECTED' ||
      err.code === 'VPPNET_ERR_CONN_LOST' ||
      err.code === 'VPPNET_ERR_TIMEOUT')
  ) {
    return new AgentApiError(AgentErrorCode.TRY_AGAIN_LATER, 'VPP did not answer', err.message);
  }
  return new AgentApiError(AgentErrorCode.INTERNAL, err instanceof Error ? err.message : String(err));
}

/** The error of a failed ADD, with the undo steps that failed after it. */
export function withUndoProblems(err: AgentApiError, failedUndo: readonly string[]): AgentApiError {
  if (failedUndo.length === 0) return err;
  const details = [err.details, `undo failed: ${failedUndo.join('; ')}`]
    .filter((d) => d !== undefined)
    .join('; ');
  return new AgentApiError(err.code, err.msg, details, { cause: err.cause });
}

/** tap_create_v3 answered SYSCALL_ERROR_1: VPP could not open /dev/vhost-net. */
export function isNoVhostNet(err: unknown): boolean {
  return (
    err instanceof PodApplyError &&
    err.causes.some(
      (c) =>
        c instanceof VppRetvalError && c.messageName === 'tap_create_v3' && c.retval === TAP_NO_VHOST_NET,
    )
  );
}
