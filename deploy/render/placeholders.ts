/**
 * The values of deploy/values/default.yaml marked PLACEHOLDER: they make the base render (the
 * committed deploy/manifests/default/ shows every object), but a site that leaves one in would
 * deploy an image from registry.example.com or an agent config for a hypervisor `hv1` that does
 * not exist. A site's own values (`--values FILE`) are refused while any is left; the repository's
 * overlays are examples and are only told about them.
 */
import type { Values, ValuesProblem } from './values.js';

/** RFC 2606 reserves example.com: no real registry or etcd member lives under it. */
function isExampleHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'example.com' || h.endsWith('.example.com');
}

/** An image reference's registry host (the part before the first `/`, when it names a host). */
function imageHost(image: string): string {
  const first = image.split('/')[0] ?? '';
  return first.includes('.') || first.includes(':') ? (first.split(':')[0] ?? '') : '';
}

function isPlaceholderImage(image: string): boolean {
  return isExampleHost(imageHost(image)) || image.includes('PLACEHOLDER');
}

/**
 * Every placeholder left in the merged values, naming the field and what to put there. `overlay`
 * is the overlay file's own tree: `nodes` is replaced as a whole, so an overlay without it renders
 * the base's example hypervisor.
 */
export function placeholderProblems(values: Values, overlay: unknown): ValuesProblem[] {
  const problems: ValuesProblem[] = [];
  const imageRef = `${values.image.repository}:${values.image.tag}`;
  if (isPlaceholderImage(imageRef))
    problems.push({
      path: 'image.repository',
      message: `is the placeholder ${values.image.repository}: set it to the registry you push the vppnet image to`,
    });
  const overlaySetsNodes =
    overlay !== null && typeof overlay === 'object' && !Array.isArray(overlay) && 'nodes' in overlay;
  if (values.datastore.mode === 'file' && !overlaySetsNodes)
    problems.push({
      path: 'nodes',
      message: `is missing: the base's ${[...values.nodes.keys()].join(', ')} is a placeholder; list your hypervisors, keyed by Kubernetes node name (deploy/README.md "Install")`,
    });
  if (values.datastore.mode === 'etcd')
    values.datastore.etcd.endpoints.forEach((endpoint, i) => {
      if (isExampleHost(new URL(endpoint).hostname))
        problems.push({
          path: `datastore.etcd.endpoints[${i}]`,
          message: `is the placeholder ${endpoint}: list your etcd members as the hypervisors reach them`,
        });
    });
  if (values.examples.enabled)
    for (const [name, service] of Object.entries(values.examples.services))
      if (isPlaceholderImage(service.image))
        problems.push({
          path: `examples.${name}.image`,
          message: `is the placeholder ${service.image}: your server's image, or examples.enabled: false`,
        });
  return problems;
}
