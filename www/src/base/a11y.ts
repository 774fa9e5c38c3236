// Names for the controls Element Plus renders without one (a transfer's arrow buttons, a pagination's
// page-size select): `v-names="{ selector, names }"` sets `aria-label` on the elements inside the
// component that match `selector`, in order, whenever it renders.
import type { Directive } from 'vue';

export interface Names {
  selector: string;
  names: string[];
}

function name(el: HTMLElement, v: Names) {
  el.querySelectorAll(v.selector).forEach((e, i) => {
    const n = v.names[Math.min(i, v.names.length - 1)];
    if (n) e.setAttribute('aria-label', n);
  });
}

export const vNames: Directive<HTMLElement, Names> = {
  mounted: (el, b) => name(el, b.value),
  updated: (el, b) => name(el, b.value),
};
