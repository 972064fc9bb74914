/** Dark / light switch in the header (remembered; the first visit follows the system). */
import React from 'react';
import { useTheme } from '../hooks/use-theme';

export function ThemeToggle() {
  const { theme, toggle } = useTheme();
  const next = theme === 'light' ? 'dark' : 'light';
  return (
    <button type="button" className="icon-btn theme-toggle" data-testid="theme-toggle" data-theme-now={theme}
      onClick={toggle} title={`Switch to the ${next} theme`} aria-label={`Switch to the ${next} theme`}>
      {theme === 'light' ? '☾' : '☀'}
    </button>
  );
}
