/**
 * The agent config's contract, written once as a TypeBox schema per section (src/config/schema/).
 * From it come the input types (Static<>), the structural checks (types, ranges, formats, unknown
 * fields; compiled in validate.ts) and the configuration reference in the README
 * (reference.ts, `vppnet config-reference`), so the documentation cannot list a field the agent
 * rejects or miss one it accepts. What one field cannot say alone (overlaps, reserved ranges, SIDs
 * in the locator, defaults taken from other fields) is the check pass's (check-config.ts).
 *
 * Why TypeBox: measured against zod 4 and valibot on this machine's kind of load (Node 20, 2 cores,
 * median of 5, structural checks only, issue 24): 1M fleet endpoint values {node}: hand-written 61.6 ms, TypeBox compiled 71.1, zod 169.8,
 * valibot 179.6; 100k remote routes {vpc, prefix, sid}: hand-written 50.2, TypeBox 43.9, zod 72.3,
 * valibot 110.3 (vppnet's whole validateConfig on them: 434 ms). TypeBox's compiled checks run at
 * hand-written speed, and its schemas are JSON Schema, which the reference is generated from.
 * bench/config measures validateConfig as a whole against another build.
 */
import { Type, type Static } from './typebox.js';
import { NodeSchema } from './schema/node.js';
import { PortSchema } from './schema/port.js';
import { RemoteRouteSchema } from './schema/remote-route.js';
import { ServicesSchema } from './schema/services.js';
import { VpcSchema } from './schema/vpc.js';

export const ConfigSchema = Type.Object(
  {
    node: NodeSchema,
    vpcs: Type.Optional(
      Type.Array(VpcSchema, { default: [], description: 'The VPCs with VMs or routes on this node.' }),
    ),
    ports: Type.Optional(Type.Array(PortSchema, { default: [], description: "This node's VM ports." })),
    remoteRoutes: Type.Optional(
      Type.Array(RemoteRouteSchema, {
        default: [],
        description: 'Prefixes of VPCs that live on other hypervisors.',
      }),
    ),
    services: Type.Optional(ServicesSchema),
  },
  { additionalProperties: false },
);

/** The config file as written (before defaults and the check pass). */
export type ConfigInput = Static<typeof ConfigSchema>;
