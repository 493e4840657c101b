// A virtualised list: rows of one fixed height, of which only those in view (plus a few either side) exist
// in the DOM. 10,000 devices cost 10,000 array entries and about thirty elements.
export class VirtualList {
  /**
   * @param {HTMLElement} viewport the scrolling element (fixed height, overflow auto)
   * @param {object} options {rowHeight, render(item, element, fresh), overscan}
   */
  constructor(viewport, { rowHeight, render, overscan = 6, signal }) {
    this.viewport = viewport;
    this.rowHeight = rowHeight;
    this.render = render;
    this.overscan = overscan;
    this.items = [];
    this.rows = new Map(); // index → element
    this.spacer = document.createElement("div");
    this.spacer.className = "vlist-spacer";
    viewport.appendChild(this.spacer);
    this.scheduled = false;
    viewport.addEventListener("scroll", () => this.schedule(), { passive: true, signal });
    this.observer = new ResizeObserver(() => this.schedule());
    this.observer.observe(viewport);
  }

  /** Removes the list's elements and stops watching the viewport. */
  destroy() {
    this.observer.disconnect();
    this.items = [];
    this.rows.clear();
    this.viewport.replaceChildren();
    this.viewport.scrollTop = 0;
  }

  /** Replaces the items (re-rendering the rows in view). */
  setItems(items) {
    this.items = items;
    this.spacer.style.height = `${items.length * this.rowHeight}px`;
    this.refresh();
  }

  /** Re-renders the rows in view, e.g. after their items' state changed. */
  refresh() {
    for (const element of this.rows.values()) element.dataset.stale = "1";
    this.schedule();
  }

  schedule() {
    if (this.scheduled) return;
    this.scheduled = true;
    requestAnimationFrame(() => { this.scheduled = false; this.layout(); });
  }

  /** Indexes of the items in view now. */
  visibleRange() {
    const top = this.viewport.scrollTop;
    const height = this.viewport.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / this.rowHeight) - this.overscan);
    const last = Math.min(this.items.length - 1, Math.ceil((top + height) / this.rowHeight) + this.overscan);
    return [first, last];
  }

  layout() {
    if (!this.spacer.isConnected) return;
    const [first, last] = this.visibleRange();
    const free = [];
    for (const [index, element] of this.rows) {
      if (index < first || index > last || index >= this.items.length) {
        this.rows.delete(index);
        free.push(element);
      }
    }
    for (let index = first; index <= last; index++) {
      let element = this.rows.get(index);
      const item = this.items[index];
      if (element && element.dataset.key === item.key && !element.dataset.stale) continue;
      const fresh = !element;
      if (!element) {
        element = free.pop() || document.createElement("div");
        if (!element.parentNode) this.viewport.appendChild(element);
        this.rows.set(index, element);
      }
      element.style.transform = `translateY(${index * this.rowHeight}px)`;
      element.dataset.key = item.key;
      element.dataset.index = String(index);
      delete element.dataset.stale;
      this.render(item, element, fresh);
    }
    for (const element of free) element.remove();
  }

  /** Scrolls so that the item with `key` is in view; returns false if no item has it. */
  reveal(key) {
    const index = this.items.findIndex((item) => item.key === key);
    if (index < 0) return false;
    const top = index * this.rowHeight;
    if (top < this.viewport.scrollTop || top + this.rowHeight > this.viewport.scrollTop + this.viewport.clientHeight) {
      this.viewport.scrollTop = Math.max(0, top - this.rowHeight * 2);
    }
    this.layout();
    return true;
  }
}
