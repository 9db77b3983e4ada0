/**
 * Objects → YAML text with comments where a reader of the manifest needs the why. Comments are
 * attached by path after the object is built, so the objects stay plain typed data.
 */
import { Document, isMap, isNode, isScalar, isSeq, type Node } from 'yaml';

export type YamlPath = readonly (string | number)[];

export interface Commented<T = object> {
  readonly object: T;
  /** Above the whole object. */
  readonly comment?: string;
  /** Above the key (in a mapping) or the item (in a list) at each path. */
  readonly comments?: readonly { readonly path: YamlPath; readonly text: string }[];
}

/** No line folding (long JSON and flags stay on one line), 2-space indents, single quotes: prettier leaves the output as it is. */
const TO_STRING = {
  lineWidth: 0,
  minContentWidth: 0,
  indent: 2,
  indentSeq: true,
  singleQuote: true,
} as const;

function commentText(text: string): string {
  return text
    .trimEnd()
    .split('\n')
    .map((line) => (line === '' ? '' : ` ${line}`))
    .join('\n');
}

export function toYamlDocument({ object, comment, comments = [] }: Commented): string {
  const doc = new Document(object);
  if (comment !== undefined) doc.commentBefore = commentText(comment);
  for (const { path, text } of comments) {
    const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
    const last = path[path.length - 1];
    let target: Node | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((p) => isScalar(p.key) && p.key.value === last);
      target = pair && isScalar(pair.key) ? pair.key : undefined;
    } else if (isSeq(parent) && typeof last === 'number') {
      const item: unknown = parent.items[last];
      target = isNode(item) ? item : undefined;
    }
    if (target === undefined)
      throw new Error(`no YAML node at ${path.join('.')} for the comment "${text.split('\n')[0]}"`);
    target.commentBefore = commentText(text);
  }
  return doc.toString(TO_STRING);
}

/** A multi-document file: a header comment, then each document after `---`. */
export function toYamlFile(header: string, docs: readonly Commented[]): string {
  const head = header
    .trimEnd()
    .split('\n')
    .map((line) => (line === '' ? '#' : `# ${line}`))
    .join('\n');
  return `${head}\n${docs.map((d) => `---\n${toYamlDocument(d)}`).join('')}`;
}

/** Plain YAML for embedded files (the agent's config in the ConfigMap). */
export function toPlainYaml(value: unknown): string {
  return new Document(value).toString(TO_STRING);
}
