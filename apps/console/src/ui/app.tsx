import { useEffect, useState } from 'preact/hooks';
import { ROUTES } from './routes.js';

function currentRoute(): string {
  const id = location.hash.replace(/^#\/?/, '').split('/')[0] ?? '';
  return ROUTES.some((route) => route.id === id) ? id : (ROUTES[0]?.id ?? '');
}

/** The shell: a header with one tab per route (hash routing), the active view below. */
export function App() {
  const [active, setActive] = useState(currentRoute);
  useEffect(() => {
    const onHash = () => setActive(currentRoute());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const route = ROUTES.find((candidate) => candidate.id === active);
  const View = route?.view;
  return (
    <div class="shell">
      <header class="topbar">
        <span class="brand">a2aplane console</span>
        <nav aria-label="Views">
          {ROUTES.map((candidate) => (
            <a
              key={candidate.id}
              href={`#/${candidate.id}`}
              class={candidate.id === active ? 'tab active' : 'tab'}
              aria-current={candidate.id === active ? 'page' : undefined}
            >
              {candidate.label}
            </a>
          ))}
        </nav>
      </header>
      <main>{View ? <View /> : null}</main>
    </div>
  );
}
