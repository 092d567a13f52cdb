import { existsSync } from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';

/** Debian's Chromium (CI installs it); browser journeys are skipped, with a note, where it is missing. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM_PATH);

if (!hasChromium) {
  console.warn(`[e2e] ${CHROMIUM_PATH} not found: browser journeys are skipped (apt-get install chromium).`);
}

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Console errors and page errors of a page. Chromium logs every 4xx answer as a console error;
 * journeys that provoke some (a wrong password) pass `allowHttpErrors`.
 */
export function collectErrors(page: Page, { allowHttpErrors = true } = {}): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() !== 'error') return;
    const text = message.text();
    if (allowHttpErrors && /Failed to load resource: the server responded with a status of 4\d\d/.test(text))
      return;
    errors.push(`console: ${text}`);
  });
  return errors;
}

/** Registers through the page's form and waits for the first project's board; returns the project's id. */
export async function registerOnPage(page: Page, baseUrl: string, email: string, password: string) {
  await page.goto(`${baseUrl}/register`);
  await page.getByTestId('register-email').fill(email);
  await page.getByTestId('register-password').fill(password);
  await page.getByTestId('register-submit').click();
  await page.waitForURL(/\/projects\/[0-9a-f-]{36}/);
  return /\/projects\/([0-9a-f-]{36})/.exec(page.url())?.[1] ?? '';
}

/** The open task's id, from the drawer's URL (?task=<id>). */
export function taskIdOf(page: Page): string {
  const id = new URL(page.url()).searchParams.get('task');
  if (!id) throw new Error('no task open');
  return id;
}

/**
 * Waits for the round a request for changes started to have run and passed (its run's
 * `roundStart` past 0). A simulated round can go through Building faster than a poll looks, so
 * the column alone cannot tell.
 */
export async function roundAfterChangesPassed(page: Page, serverUrl: string): Promise<void> {
  const taskId = taskIdOf(page);
  await expect
    .poll(
      async () => {
        const status = await (await page.request.get(`${serverUrl}/api/pipeline/${taskId}/status`)).json();
        return status.roundStart > 0 && status.status === 'passed';
      },
      { timeout: 90_000 },
    )
    .toBe(true);
}

/**
 * Confirms a dialog (`confirmTestId`, e.g. `confirm-approve-pipeline`) and waits for it to close:
 * it closes only once its request has answered, and until then it holds the keyboard (an Escape
 * pressed meanwhile closes it, not the drawer beneath).
 */
export async function confirm(page: Page, confirmTestId: string): Promise<void> {
  const button = page.getByTestId(confirmTestId);
  await button.click();
  await button.waitFor({ state: 'detached', timeout: 30_000 });
}

/**
 * An agent token made through the signed-in page, and that agent taking a lock over REST on the
 * project's default branch (`main`); answers the token.
 */
export async function agentTakesLock(
  page: Page,
  serverUrl: string,
  projectId: string,
  agent: { name: string; file: string; message: string },
): Promise<string> {
  const created = await page.request.post(`${serverUrl}/api/tokens`, {
    data: { name: agent.name },
    headers: { origin: serverUrl },
  });
  expect(created.status()).toBe(201);
  const { token } = (await created.json()) as { token: string };
  const posted = await fetch(`${serverUrl}/api/post_status`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      repo_url: `${serverUrl}/git/${projectId}.git`,
      branch: 'main',
      file_paths: [agent.file],
      status: 'WRITING',
      message: agent.message,
    }),
  });
  expect(((await posted.json()) as { success: boolean }).success).toBe(true);
  return token;
}
