// factorly ui: live updates over server-sent events. Pages work without it; this only keeps them current.
(() => {
  const live = document.body.dataset.live;
  if (!live || !('EventSource' in window)) return;
  const source = new EventSource(live);
  // The header shows "Live" while the stream is open, and the reload link whenever it is not.
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
    if (list) list.innerHTML = html;
  });
})();
