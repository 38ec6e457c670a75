// Small helpers for drawing views: elements from data (text is always set as text, never parsed as HTML), the
// listing's HTML fields cut down to a few harmless tags, and image addresses (values in words: format.ts).

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

/** `h('a', { href: '/' }, 'Home')`: an element with its attributes (false/null/undefined: left out) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) if (child) element.append(child);
  return element;
}

/** Reads a `<meta name=... content=...>` the storefront's server wrote into the page. */
export function meta(name: string): string {
  return document.querySelector<HTMLMetaElement>(`meta[name="${name}"]`)?.content ?? '';
}

const KEPT_TAGS = new Set(['P', 'BR', 'UL', 'OL', 'LI', 'STRONG', 'B', 'EM', 'I', 'H3', 'H4']);

/**
 * The listing's HTML fields (description, what's included) come from photographers: shown through an allow-list
 * of tags with no attributes, so no script, style, link or handler of theirs reaches the page.
 */
export function safeHtml(html: string): DocumentFragment {
  const parsed = new DOMParser().parseFromString(html, 'text/html');
  const copy = (from: Node, to: Node) => {
    for (const node of from.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) to.appendChild(document.createTextNode(node.textContent ?? ''));
      else if (node.nodeType === Node.ELEMENT_NODE) {
        const tag = (node as Element).tagName;
        if (tag === 'SCRIPT' || tag === 'STYLE') continue;
        // An element not kept gives its text and kept children to its parent.
        const target = KEPT_TAGS.has(tag) ? to.appendChild(document.createElement(tag)) : to;
        copy(node, target);
      }
    }
  };
  const fragment = document.createDocumentFragment();
  copy(parsed.body, fragment);
  return fragment;
}

const demoImages = meta('storefront-demo-images');

/** An image's address; the demo data's CDN does not exist, so its images are drawn by the storefront's server. */
export function imageSrc(url: string): string {
  return demoImages && url.startsWith(`${demoImages}/`) ? `/demo-images/${url.slice(demoImages.length + 1)}` : url;
}
