import { type Html, html } from "./html.js";

/**
 * The login form: the operator's name (recorded as `console:<name>` with every change) and, when one is
 * configured, the console token. `next` is where to go after (a path of this console).
 */
export function loginPage(options: { needsToken: boolean; next: string; error: string | null }): Html {
  return html`<section class="login">
    <h1>Pricing console</h1>
    ${options.error === null ? null : html`<p class="error-text" role="alert">${options.error}</p>`}
    <form method="post" action="/login" id="login-form">
      <input type="hidden" name="next" value="${options.next}">
      <label>Your name <input name="operator" required maxlength="64" autocomplete="username"></label>
      ${
        options.needsToken
          ? html`<label>Console token <input name="token" type="password" required autocomplete="current-password"></label>`
          : html`<p class="muted">This console listens on loopback without a token: your name is recorded with each change.</p>`
      }
      <button type="submit">Log in</button>
    </form>
  </section>`;
}
