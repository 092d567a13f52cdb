import { cloneElement, type ReactElement, useId } from 'react';

interface ControlProps {
  id?: string;
  'aria-invalid'?: boolean;
  'aria-describedby'?: string;
}

interface FieldProps {
  label: string;
  error?: string | undefined;
  hint?: string;
  children: ReactElement<ControlProps>;
}

/** A label, one control and its error message, wired together for assistive technology. */
export function Field({ label, error, hint, children }: FieldProps) {
  const id = useId();
  const messageId = `${id}-message`;
  const message = error ?? hint;
  return (
    <div className="flex flex-col gap-1.5">
      <label htmlFor={id} className="text-xs font-medium text-zinc-700">
        {label}
      </label>
      {cloneElement(children, {
        id,
        'aria-invalid': error ? true : undefined,
        'aria-describedby': message ? messageId : undefined,
      })}
      {message && (
        <p id={messageId} className={error ? 'text-xs text-red-600' : 'text-xs text-zinc-500'}>
          {message}
        </p>
      )}
    </div>
  );
}
