// First: configures zod before the contracts build their schemas.
import './lib/zod-jitless';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/app';
import { initTheme } from './lib/theme';
import './styles.css';

// The theme goes on <html> before the first render: no light flash for a dark choice.
initTheme();

const root = document.getElementById('root');
if (!root) throw new Error('Missing #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
