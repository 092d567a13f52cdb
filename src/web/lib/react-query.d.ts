import '@tanstack/react-query';

declare module '@tanstack/react-query' {
  interface Register {
    mutationMeta: {
      /** The toast's title when the mutation fails; the server's message becomes its description. */
      errorTitle?: string;
    };
  }
}
