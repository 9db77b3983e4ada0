// Here, in the top layer, because it sees every area's errors.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { UsageError } from '../agent/agent-flags.js';
import { InstallCniError } from './install-cni.js';
import { CliUsageError } from './vppnet.js';
import { CniError, CniErrorCode } from '../cni/errors.js';
import { ConfigError } from '../config/validate.js';
import { NetnsError } from '../netns/errors.js';
import { ServiceAddressExhaustedError } from '../services/address-allocator.js';
import { PodApplyError } from '../attachments/pod-dataplane.js';
import { VppRetvalError } from '../vpp/client/retval-error.js';
import { VppError } from '../vpp/errors.js';
import { VppnetError } from '../util/errors.js';

describe('VppnetError', () => {
  it('is the base of every area error, each keeping its class, name, code and message', () => {
    const cases: [Error, abstract new (...args: never[]) => Error, string, string | number][] = [
      [new VppError('VPPNET_ERR_TIMEOUT', 'late'), VppError, 'VppError', 'VPPNET_ERR_TIMEOUT'],
      [new VppRetvalError('ip_route_add_del', -6), VppError, 'VppRetvalError', 'VPPNET_ERR_RETVAL'],
      [
        new NetnsError('VPPNET_ERR_NETNS_NOT_FOUND', 'gone'),
        NetnsError,
        'NetnsError',
        'VPPNET_ERR_NETNS_NOT_FOUND',
      ],
      [
        new ConfigError([{ path: 'node.name', message: 'missing' }]),
        ConfigError,
        'ConfigError',
        'VPPNET_ERR_CONFIG',
      ],
      [new CniError(CniErrorCode.TRY_AGAIN_LATER, 'busy', 'agent'), CniError, 'CniError', 11],
      [
        new ServiceAddressExhaustedError('vm1', { address: '169.252.252.0', len: 30 }, 2, 0, undefined),
        ServiceAddressExhaustedError,
        'ServiceAddressExhaustedError',
        'VPPNET_ERR_SERVICE_ADDRESSES_EXHAUSTED',
      ],
      [new PodApplyError('no bridge', true), PodApplyError, 'PodApplyError', 'VPPNET_ERR_POD_APPLY'],
      [new UsageError('--config: missing'), UsageError, 'UsageError', 'VPPNET_ERR_USAGE'],
      [new CliUsageError('unknown command'), CliUsageError, 'CliUsageError', 'VPPNET_ERR_USAGE'],
      [new InstallCniError('--name: bad'), InstallCniError, 'InstallCniError', 'VPPNET_ERR_INSTALL_CNI'],
    ];
    for (const [err, cls, name, code] of cases) {
      assert.ok(err instanceof cls, name);
      assert.ok(err instanceof VppnetError, `${name} is a VppnetError`);
      assert.ok(err instanceof Error);
      assert.equal(err.name, name);
      assert.equal((err as VppnetError).code, code, name);
      assert.ok(err.message.length > 0);
    }
    assert.equal(new CniError(11, 'busy', 'agent').message, 'busy: agent');
    assert.equal(new VppError('VPPNET_ERR_TIMEOUT', 'late', { cause: 'x' }).cause, 'x');
    assert.ok(!(new NetnsError('VPPNET_ERR_IP_COMMAND', 'x') instanceof VppError), 'areas stay apart');
  });
});
