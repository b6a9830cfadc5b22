/**
 * All of stdin, through its stream. Once anything has touched `process.stdin` (an ES module importing
 * `node:process`, a plugin's prompt channel), fd 0 is non-blocking: a synchronous read then fails
 * with EAGAIN when the producer has not written yet.
 */
export async function readStdinWhole(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin)
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
