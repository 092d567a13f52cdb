import type { ComponentProps } from 'react';
import { cn } from '@/web/lib/cn';
import { Spinner } from './spinner';

const variants = {
  primary: 'bg-zinc-900 text-white hover:bg-zinc-800 disabled:bg-zinc-400',
  secondary: 'border border-zinc-200 bg-white text-zinc-800 shadow-xs hover:bg-zinc-50',
  ghost: 'text-zinc-700 hover:bg-zinc-100',
  danger: 'bg-red-600 text-white hover:bg-red-700 disabled:bg-red-300',
  'ghost-dark': 'text-zinc-300 hover:bg-white/10 hover:text-white',
} as const;

const sizes = {
  sm: 'h-7 gap-1.5 px-2.5 text-xs',
  md: 'h-8 gap-2 px-3 text-sm',
  icon: 'size-8 justify-center',
  'icon-sm': 'size-7 justify-center',
} as const;

export interface ButtonProps extends ComponentProps<'button'> {
  variant?: keyof typeof variants;
  size?: keyof typeof sizes;
  loading?: boolean;
}

export function Button({
  variant = 'secondary',
  size = 'md',
  loading = false,
  disabled,
  className,
  children,
  type = 'button',
  ...props
}: ButtonProps) {
  return (
    <button
      type={type}
      disabled={disabled || loading}
      aria-busy={loading || undefined}
      className={cn(
        'inline-flex shrink-0 items-center justify-center rounded-md font-medium whitespace-nowrap transition-colors',
        'focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-sky-500',
        'disabled:cursor-not-allowed disabled:opacity-60',
        variants[variant],
        sizes[size],
        className,
      )}
      {...props}
    >
      {loading && <Spinner className="size-3.5" />}
      {children}
    </button>
  );
}
