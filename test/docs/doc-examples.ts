// The examples of the front page and the guides, as a reader meets them: every fenced block (its language, text
// and the line it starts on) and every command written inline in prose (`curl ...`, `npm run ...`, `npm start`,
// `npx ...`, `node ...`), each with the `<!-- illustrative: reason -->` comment that stands just before it, if any.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { fromMarkdown } from 'mdast-util-from-markdown';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** README.md and docs/*.md, from the root. */
export function guideFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort();
  return ['README.md', ...docs.map((name) => `docs/${name}`)];
}

export interface Example {
  file: string;
  line: number;
  /** The fence's language ('' for none), or 'inline' for a command in prose. */
  lang: string;
  text: string;
  /** The reason of the `<!-- illustrative: ... -->` just before it, if marked. */
  illustrative?: string;
  /** The fenced block right after this one, when nothing stands between them (a command's output). */
  output?: Example;
}

interface MdNode {
  type: string;
  lang?: string | null;
  value?: string;
  children?: MdNode[];
  position?: { start: { line: number } };
}

const MARK = /^<!--\s*illustrative:\s*([\s\S]*?)\s*-->$/;
const INLINE_COMMAND = /^(curl|npm (run|start|test|install)|npx|node) /;

/** The reason of a marking comment, or undefined. */
function markOf(node: MdNode | undefined): string | undefined {
  if (node?.type !== 'html') return undefined;
  const reason = MARK.exec((node.value ?? '').trim())?.[1];
  return reason === '' ? undefined : reason;
}

function collect(file: string, node: MdNode, found: Example[]): void {
  const children = node.children ?? [];
  let previous: Example | undefined;
  children.forEach((child, i) => {
    const before = children[i - 1];
    const beforeThat = before && /^\s*$/.test(before.value ?? 'x') && before.type === 'text' ? children[i - 2] : before;
    if (child.type === 'code') {
      const example: Example = {
        file,
        line: child.position?.start.line ?? 0,
        lang: child.lang ?? '',
        text: child.value ?? '',
      };
      const illustrative = markOf(before);
      if (illustrative) example.illustrative = illustrative;
      if (previous && example.lang === '' && before?.type === 'code') previous.output = example;
      found.push(example);
      previous = example;
      return;
    }
    previous = undefined;
    if (child.type === 'inlineCode' && INLINE_COMMAND.test(child.value ?? '')) {
      const example: Example = { file, line: child.position?.start.line ?? 0, lang: 'inline', text: child.value ?? '' };
      const illustrative = markOf(beforeThat);
      if (illustrative) example.illustrative = illustrative;
      found.push(example);
      return;
    }
    collect(file, child, found);
  });
}

/** Every example of one Markdown file, in order; a block that is another's output is still listed. */
export function examplesOf(file: string, markdown = readFileSync(join(ROOT, file), 'utf8')): Example[] {
  const found: Example[] = [];
  collect(file, fromMarkdown(markdown) as MdNode, found);
  return found;
}

export const allExamples = (): Example[] => guideFiles().flatMap((file) => examplesOf(file));
