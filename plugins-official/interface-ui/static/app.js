// factorly ui: small enhancements over pages that work without JavaScript. Nothing here is needed
// to read a page or act on it; it keeps pages current and saves a few clicks.

// Waits as a person reads them; the server renders the same text (html.ts `waited`).
const waited = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
};

// Clocks on approval cards: the time waited counts up, the time left before auto-deny counts down.
const tick = () => {
  const now = Date.now();
  for (const clock of document.querySelectorAll('time[data-since]'))
    clock.textContent = waited(now - Date.parse(clock.dataset.since));
  for (const clock of document.querySelectorAll('time[data-until]')) {
    const left = Date.parse(clock.dataset.until) - now;
    clock.textContent = left > 0 ? waited(left) : 'any moment';
  }
};
setInterval(tick, 1000);

// The waterfall: a call with inner calls folds its subtree away (every row stays without script).
const waterfall = document.querySelector('ol.waterfall');
if (waterfall) {
  const items = [...waterfall.querySelectorAll(':scope > .wf-item')];
  const relayout = () => {
    let foldedAt = Infinity;
    for (const item of items) {
      const depth = Number(item.dataset.depth);
      if (depth <= foldedAt) foldedAt = Infinity;
      item.hidden = depth > foldedAt;
      if (!item.hidden && item.classList.contains('folded')) foldedAt = depth;
    }
  };
  for (const button of waterfall.querySelectorAll('.wf-toggle')) {
    button.hidden = false;
    button.addEventListener('click', () => {
      const open = button.getAttribute('aria-expanded') !== 'true';
      button.setAttribute('aria-expanded', String(open));
      button.closest('.wf-item').classList.toggle('folded', !open);
      relayout();
    });
  }
}

// Live updates over server-sent events; the header shows "Live" while the stream is open.
(() => {
  const live = document.body.dataset.live;
  if (!live || !('EventSource' in window)) return;
  const source = new EventSource(live);
  source.addEventListener('open', () => document.body.classList.add('js-live'));
  source.addEventListener('error', () => document.body.classList.remove('js-live'));

  const fragment = (markup) => {
    const template = document.createElement('template');
    template.innerHTML = markup.trim();
    return template.content.firstElementChild;
  };

  source.addEventListener('call', (event) => {
    const rows = document.getElementById('history-rows');
    if (!rows) return;
    const { id, html } = JSON.parse(event.data);
    const row = fragment(`<table><tbody>${html}</tbody></table>`).querySelector('tr');
    const existing = document.getElementById(id);
    if (existing) existing.replaceWith(row);
    else rows.prepend(row);
    document.getElementById('history-empty')?.remove();
  });

  source.addEventListener('dashboard', (event) => {
    const panels = document.getElementById('dashboard-panels');
    if (panels) panels.innerHTML = JSON.parse(event.data).html;
  });

  source.addEventListener('approvals', (event) => {
    const { count, html } = JSON.parse(event.data);
    const badge = document.getElementById('pending-count');
    if (badge) {
      badge.textContent = String(count);
      badge.classList.toggle('zero', count === 0);
    }
    const list = document.getElementById('approvals-list');
    if (list) {
      list.innerHTML = html;
      tick();
    }
  });
})();
