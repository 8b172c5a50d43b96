// The sample X12 files, read as text by Vite's ?raw import.
declare module "*.edi?raw" {
  const text: string;
  export default text;
}
