/**
 * The "applying n/total" line of a long apply, on stderr so stdout stays the
 * command's result: redrawn in place on a terminal, else a line at every
 * tenth of the way (for CI logs).
 */
export function progressReporter(stream: NodeJS.WriteStream) {
  const terminal = Boolean(stream.isTTY);
  let lastTenth = -1;
  let drawn = false;
  return {
    update(done: number, total: number) {
      const text = `applying ${done}/${total} changes`;
      if (terminal) {
        stream.write(`\r\x1b[K${text}`);
        drawn = true;
        return;
      }
      const tenth = Math.floor((done * 10) / total);
      if (tenth !== lastTenth && (tenth > lastTenth || done === total)) {
        lastTenth = tenth;
        stream.write(`${text}\n`);
      }
    },
    end() {
      if (drawn) stream.write("\r\x1b[K");
    },
  };
}
