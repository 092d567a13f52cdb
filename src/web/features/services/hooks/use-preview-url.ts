import { useCallback, useEffect, useState } from 'react';
import { createPreview } from '../api/create-preview';
import { serviceErrorMessage } from '../api/service-errors';

/**
 * A fresh one-time preview URL for an iframe, asked for on mount and on every `refresh` (a ticket
 * works once: reloading the frame means a new one).
 */
export function usePreviewUrl(workspaceId: string, serviceId: string) {
  const [url, setUrl] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [attempt, setAttempt] = useState(0);

  // biome-ignore lint/correctness/useExhaustiveDependencies: each attempt asks for a new ticket.
  useEffect(() => {
    let cancelled = false;
    setLoading(true);
    setError(null);
    createPreview(workspaceId, serviceId).then(
      (preview) => {
        if (cancelled) return;
        setUrl(preview.url);
        setLoading(false);
      },
      (cause: unknown) => {
        if (cancelled) return;
        setError(serviceErrorMessage(cause));
        setLoading(false);
      },
    );
    return () => {
      cancelled = true;
    };
  }, [workspaceId, serviceId, attempt]);

  const refresh = useCallback(() => setAttempt((n) => n + 1), []);
  return { url, error, loading, refresh };
}

/**
 * Opens the preview in a new tab. The tab is opened at once, while the click still counts as the
 * person's (popup blockers), and sent to the ticket URL when it arrives; the tab gets no handle on
 * AutoCoder's page.
 */
export async function openPreviewTab(workspaceId: string, serviceId: string): Promise<void> {
  const tab = window.open('about:blank', '_blank');
  try {
    const { url } = await createPreview(workspaceId, serviceId);
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.open(url, '_blank', 'noopener');
    }
  } catch (error) {
    tab?.close();
    throw error;
  }
}
