/**
 * Driving code-server's workbench from Playwright: the command palette, quick
 * picks, notifications, CodeLenses and the chat webview's frame. Selectors are
 * VS Code's own DOM classes; each helper waits for what it needs rather than
 * sleeping, so a slow machine is slower, not flakier.
 */

import * as fs from 'node:fs';

import type { Frame, Locator, Page } from 'playwright-core';

/** Poll `probe` until it returns something truthy; the error names `what`. */
export async function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
}

export class Workbench {
  constructor(readonly page: Page) {}

  /**
   * Run a command by its palette title ("Rift: Open Chat"). Extensions' commands
   * reach the palette a moment after the workbench shows, so a title not listed
   * yet is retried rather than failed.
   */
  async runCommand(title: string, timeoutMs = 60_000): Promise<void> {
    const box = this.page.locator('.quick-input-widget .quick-input-box input');
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: title }).first();
    await until(
      async () => {
        await this.page.keyboard.press('F1');
        await box.waitFor({ state: 'visible' });
        await box.fill(`>${title}`);
        if (await row.waitFor({ state: 'visible', timeout: 3000 }).then(() => true, () => false)) return true;
        await this.page.keyboard.press('Escape');
        return false;
      },
      `the command "${title}" in the palette`,
      timeoutMs,
    );
    await box.press('Enter');
    await box.waitFor({ state: 'hidden' });
  }

  /**
   * Set a text setting through the Settings editor, as a person would: search
   * for its id, type into its box, close the editor once the value has reached
   * `settingsFile` (the editor writes after a debounce; closing it sooner drops the edit).
   */
  async setTextSetting(id: string, label: string, value: string, settingsFile: string): Promise<void> {
    await this.runCommand('Preferences: Open User Settings');
    const editor = this.page.locator('.settings-editor');
    await editor.waitFor({ state: 'visible' });
    await editor.locator('.settings-header .suggest-input-container').click();
    await this.page.keyboard.press('ControlOrMeta+A');
    await this.page.keyboard.type(id);
    const row = editor.locator('.setting-item-contents', { hasText: label }).first();
    const input = row.locator('input').first();
    await input.waitFor({ state: 'visible' });
    await input.fill(value);
    await input.press('Tab');
    await until(
      async () => {
        const saved = JSON.parse(fs.readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;
        return saved[id] === value;
      },
      `${id} saved to ${settingsFile}`,
    );
    await this.closeSettings();
  }

  /** The Settings editor (a modal in recent VS Code): Escape, else its close button. */
  private async closeSettings(): Promise<void> {
    const editor = this.page.locator('.settings-editor');
    await until(
      async () => {
        if (!(await editor.isVisible())) return true;
        await this.page.keyboard.press('Escape');
        await new Promise((r) => setTimeout(r, 300));
        if (!(await editor.isVisible())) return true;
        const close = this.page.locator('.codicon-close:visible, .codicon-close-dirty:visible').first();
        if (await close.count()) await close.click().catch(() => undefined);
        return false;
      },
      'the Settings editor to close',
      15_000,
    );
  }

  /** An action in a view's title bar, by its command title ("New Session"). */
  viewAction(title: string): Locator {
    return this.page.locator('.pane-composite-part .title-actions, .part.sidebar .composite.title').getByRole('button', {
      name: title,
      exact: true,
    }).first();
  }

  /** The open quick pick's row labels, once it shows at least one. */
  async quickPickLabels(): Promise<string[]> {
    const rows = this.page.locator('.quick-input-widget .monaco-list-row');
    await rows.first().waitFor({ state: 'visible' });
    return rows.locator('.label-name').allTextContents();
  }

  async pickQuick(label: string): Promise<void> {
    const row = this.page.locator('.quick-input-widget .monaco-list-row', { hasText: label }).first();
    await row.click();
    await this.page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
  }

  /** A notification toast containing `text`. */
  notification(text: string | RegExp): Locator {
    return this.page.locator('.notifications-toasts .notification-toast', { hasText: text });
  }

  async dismissNotifications(): Promise<void> {
    await this.runCommand('Notifications: Clear All Notifications').catch(() => undefined);
  }

  /** A CodeLens link in any editor whose text contains `text`. */
  codeLens(text: string): Locator {
    return this.page.locator('.codelens-decoration a', { hasText: text }).first();
  }

  /** The frame that holds the rift chat page (the webview's inner iframe). */
  async chatFrame(timeoutMs = 60_000): Promise<Frame> {
    return until(
      async () => {
        for (const frame of this.page.frames()) {
          if (frame.isDetached()) continue;
          const composer = await frame.$('#composer').catch(() => null);
          if (composer) return frame;
        }
        return undefined;
      },
      'the rift chat webview',
      timeoutMs,
    );
  }

  async screenshot(file: string): Promise<void> {
    await this.page.screenshot({ path: file });
  }
}

/** The text of the last `selector` in `frame`, once it satisfies `accept`. */
export async function textWhen(
  frame: Frame,
  selector: string,
  accept: (text: string) => boolean,
  what: string,
  timeoutMs = 30_000,
): Promise<string> {
  return until(
    async () => {
      const text = (await frame.locator(selector).last().textContent({ timeout: 1000 })) ?? '';
      return accept(text) ? text || ' ' : undefined;
    },
    what,
    timeoutMs,
  );
}
