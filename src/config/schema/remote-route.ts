/** One item of `remoteRoutes`: a prefix of a VPC that lives on another hypervisor. */
import { Type, type Static } from '../typebox.js';
import { formatted, name } from './fields.js';

export const RemoteRouteSchema = Type.Object(
  {
    vpc: name({ description: 'The VPC.' }),
    prefix: formatted('ip-network', {
      description:
        'The remote prefix (unique per VPC), of a family the VPC has a subnet of; an IPv6 one may not overlap the underlay prefix, the locator or the BSID prefix.',
    }),
    sid: formatted('ip6', {
      description:
        "The remote node's End.DT4 SID for this VPC for an IPv4 prefix, its End.DT6 SID for an IPv6 one (outside this node's locator).",
    }),
  },
  { additionalProperties: false },
);

export type RemoteRouteInput = Static<typeof RemoteRouteSchema>;
