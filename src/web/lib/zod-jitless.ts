import { z } from 'zod';

// The contracts bring zod into the browser. Its fast path probes `new Function`, which the server's
// Content-Security-Policy forbids and reports as a console error; jitless mode never tries.
z.config({ jitless: true });
