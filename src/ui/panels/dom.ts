// A few lines of DOM building so panels read like their markup, without a framework.

type Child = Node | string | number | null | undefined | false;

/**
 * Attributes and properties: `class`, `data-*`, `aria-*` and other attributes as strings; `on*` as
 * listeners.
 */
export type Props = Record<string, string | number | boolean | null | undefined | EventListener>;

/** Creates an element: h('button', { class: 'primary', onclick: go }, 'Train'). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props ?? {})) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, ...children);
  return element;
}

/** Appends children, skipping null/false. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(
      typeof child === 'string' || typeof child === 'number'
        ? document.createTextNode(String(child))
        : child,
    );
  }
}

/** Replaces every child of `parent`. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Sets text only when it changed (avoids layout work on every event). */
export function setText(element: Element, text: string): void {
  if (element.textContent !== text) element.textContent = text;
}

/** Shows or hides an element. */
export function show(element: HTMLElement, visible: boolean): void {
  element.hidden = !visible;
}
