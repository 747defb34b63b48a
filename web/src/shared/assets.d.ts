// Files imported as text by Vite (`?raw`): the piece set's drawings.
declare module '*.svg?raw' {
  const text: string;
  export default text;
}
