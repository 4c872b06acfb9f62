// Reading the server's DAP messages. Nothing here imports vscode.

export interface DapMessage {
  type?: string;
  command?: string;
  success?: boolean;
  message?: string;
}

/** True for a failed launch response about the model (the server's message names it). */
export function isModelFailure(message: DapMessage): boolean {
  return (
    message.type === 'response' &&
    message.command === 'launch' &&
    message.success === false &&
    /\bmodel\b|tokenizer/i.test(message.message ?? '')
  );
}
