/** Page title, a line of context, and controls at the right; `busy` shows a small spinner. */
import React from 'react';
import { useDocumentTitle } from '../hooks/use-document-title';

export function PageHeader({ title, subtitle, children, busy }) {
  useDocumentTitle(typeof title === 'string' ? title : null);
  return (
    <div className="page-header">
      <div>
        <h1>{title}{busy && <span className="spinner small" aria-label="updating" />}</h1>
        {subtitle && <p className="subtitle">{subtitle}</p>}
      </div>
      {children && <div className="page-controls">{children}</div>}
    </div>
  );
}
