import { QueryClientProvider } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import { Toaster, toast } from 'sonner';
import { endSession } from '../features/auth/api/session';
import { setUnauthorizedHandler } from '../lib/api-client';
import { useResolvedTheme } from '../lib/theme';
import { createQueryClient } from './query-client';

export function AppProvider({ children }: { children: ReactNode }) {
  const [queryClient] = useState(createQueryClient);
  const theme = useResolvedTheme();

  useEffect(() => {
    // Any 401 means the session is gone: forget the user and the route guard sends them to /login.
    setUnauthorizedHandler(() => {
      endSession(queryClient);
      toast.error('Your session has ended', {
        id: 'session-ended',
        description: 'Sign in again to continue.',
      });
    });
    return () => setUnauthorizedHandler(undefined);
  }, [queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      {children}
      <Toaster
        theme={theme}
        position="bottom-right"
        richColors
        closeButton
        toastOptions={{ className: 'text-sm' }}
      />
    </QueryClientProvider>
  );
}
