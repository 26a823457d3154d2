/**
 * The extension's own command ids. They must differ from every command the server lists in
 * `executeCommandProvider` (crane.attachKernel, crane.listKernels, crane.status, crane.check,
 * crane.showPrompt): vscode-languageclient registers those itself, and VS Code refuses a
 * second registration, which makes `client.start()` fail.
 */
export const EXTENSION_COMMANDS = {
  pickKernel: "crane.pickKernel",
  pickKernelFor: "crane.pickKernelFor",
  checkCell: "crane.checkCell",
  showCellPrompt: "crane.showCellPrompt",
  restartServer: "crane.restartServer",
} as const;

/** Commands the language server executes (`workspace/executeCommand`). */
export const SERVER_COMMANDS = {
  attachKernel: "crane.attachKernel",
  listKernels: "crane.listKernels",
  status: "crane.status",
  check: "crane.check",
  showPrompt: "crane.showPrompt",
} as const;
