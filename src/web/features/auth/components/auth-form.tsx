import { type FormEvent, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/web/components/ui/button';
import { Field } from '@/web/components/ui/field';
import { Input } from '@/web/components/ui/input';
import { errorMessage, isApiError } from '@/web/lib/api-client';
import { useLogin } from '../api/login';
import { useRegister } from '../api/register';

interface AuthFormProps {
  mode: 'login' | 'register';
  onSuccess: () => void;
}

const copy = {
  login: {
    title: 'Sign in to AutoCoder',
    submit: 'Sign in',
    switchText: 'No account yet?',
    switchLink: 'Create one',
    switchTo: '/register',
  },
  register: {
    title: 'Create your AutoCoder account',
    submit: 'Create account',
    switchText: 'Already have an account?',
    switchLink: 'Sign in',
    switchTo: '/login',
  },
} as const;

/** The login and register forms; test ids are `<mode>-email`, `<mode>-password`, `<mode>-submit`. */
export function AuthForm({ mode, onSuccess }: AuthFormProps) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const login = useLogin();
  const register = useRegister();
  const mutation = mode === 'login' ? login : register;
  const text = copy[mode];
  const error = mutation.error;
  const emailError = isApiError(error) ? error.fieldError('email') : undefined;
  const passwordError = isApiError(error) ? error.fieldError('password') : undefined;
  const formError = error && !emailError && !passwordError ? errorMessage(error) : undefined;

  function handleSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    mutation.mutate({ email, password }, { onSuccess });
  }

  return (
    <form
      noValidate
      onSubmit={handleSubmit}
      className="flex flex-col gap-4"
      aria-labelledby={`${mode}-title`}
    >
      <h1 id={`${mode}-title`} className="text-lg font-semibold text-zinc-900">
        {text.title}
      </h1>
      <Field label="Email" error={emailError}>
        <Input
          type="email"
          name="email"
          autoComplete="email"
          required
          autoFocus
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          data-testid={`${mode}-email`}
        />
      </Field>
      <Field
        label="Password"
        error={passwordError}
        hint={mode === 'register' ? 'At least 8 characters.' : undefined}
      >
        <Input
          type="password"
          name="password"
          autoComplete={mode === 'login' ? 'current-password' : 'new-password'}
          required
          value={password}
          onChange={(event) => setPassword(event.target.value)}
          data-testid={`${mode}-password`}
        />
      </Field>
      {formError && (
        <p
          role="alert"
          className="rounded-md bg-red-50 px-3 py-2 text-sm text-red-700 ring-1 ring-red-200 ring-inset"
        >
          {formError}
        </p>
      )}
      <Button type="submit" variant="primary" loading={mutation.isPending} data-testid={`${mode}-submit`}>
        {text.submit}
      </Button>
      <p className="text-center text-sm text-zinc-500">
        {text.switchText}{' '}
        <Link to={text.switchTo} className="font-medium text-zinc-900 underline-offset-4 hover:underline">
          {text.switchLink}
        </Link>
      </p>
    </form>
  );
}
