/**
 * Whether a process with this pid runs on this host: signal 0 checks without signalling. Only
 * ESRCH says it is gone; EPERM (it runs as another user) or anything else counts as running, so a
 * caller that would act on a dead process's files (replay its journal, retire its key) does not.
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
