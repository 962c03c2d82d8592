import './styles.css';
import { hasToken } from './api.js';
import { replace } from './dom.js';
import { lang, onLangChange, setLang } from './i18n.js';
import { assistantPage } from './pages/assistant.js';
import { fridgePage } from './pages/fridge.js';
import { loginPage } from './pages/login.js';
import { mealPlanPage } from './pages/meal-plan.js';
import { playgroundPage } from './pages/playground.js';
import { preferencesPage } from './pages/preferences.js';
import { recipesPage } from './pages/recipes.js';
import { currentPath, navigate, onRoute } from './router.js';
import { shell } from './shell.js';
import { homePath, loadMe, session } from './state.js';

const PAGES: Record<string, () => HTMLElement> = {
  '/fridge': fridgePage,
  '/recipes': recipesPage,
  '/plan': mealPlanPage,
  '/preferences': preferencesPage,
  '/assistant': assistantPage,
  '/playground': playgroundPage,
};

const found = document.getElementById('app');
if (found === null) throw new Error('index.html has no #app');
const root: HTMLElement = found;

async function render(): Promise<void> {
  const path = currentPath();
  if (session.me === null && hasToken()) await loadMe();
  if (session.me === null && path !== '/login') return navigate('/login');
  if (session.me !== null && (path === '/login' || path === '/')) return navigate(homePath());
  const page = path === '/login' ? loginPage : (PAGES[path] ?? fridgePage);
  replace(
    root,
    shell(page(), () => void render()),
  );
  document.title = `${document.querySelector('main h2')?.textContent ?? ''} · 小家菜单`;
}

setLang(lang());
onLangChange(() => void render());
onRoute(() => void render());
void render();
