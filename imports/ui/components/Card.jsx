/** A titled panel; `actions` sit at the right of the title. */
import React from 'react';

export function Card({ title, actions, children, className = '', subtitle }) {
  return (
    <section className={`card ${className}`}>
      {(title || actions) && (
        <header className="card-head">
          <h2>{title}{subtitle && <small>{subtitle}</small>}</h2>
          {actions && <div className="card-actions">{actions}</div>}
        </header>
      )}
      <div className="card-body">{children}</div>
    </section>
  );
}
