import { Navigate, useNavigate } from 'react-router';
import { Brand } from '@/web/components/brand';
import { useMe } from '@/web/features/auth/api/get-me';
import { AuthForm } from '@/web/features/auth/components/auth-form';

function AuthPage({ mode }: { mode: 'login' | 'register' }) {
  const me = useMe();
  const navigate = useNavigate();
  // "/" opens the board of the first project.
  if (me.data) return <Navigate to="/" replace />;
  return (
    <main className="flex min-h-full flex-col items-center justify-center gap-6 px-4 py-10">
      <title>{mode === 'login' ? 'Sign in · AutoCoder' : 'Create account · AutoCoder'}</title>
      <Brand className="text-base" />
      <div className="w-full max-w-sm rounded-xl border border-zinc-200 bg-white p-6 shadow-sm">
        <AuthForm mode={mode} onSuccess={() => navigate('/', { replace: true })} />
      </div>
      <p className="max-w-sm text-center text-xs text-zinc-400">
        Plan tasks on a board; AI agents code and review them on git branches.
      </p>
    </main>
  );
}

export function LoginRoute() {
  return <AuthPage key="login" mode="login" />;
}

export function RegisterRoute() {
  return <AuthPage key="register" mode="register" />;
}
