/*
 * signals.h - Ctrl-C and termination: the handler only raises a flag; the
 * executor stops taking chunks when it sees it and the CLI ends every rank
 * without leaving a results file behind.
 */
#ifndef TSR_SIGNALS_H
#define TSR_SIGNALS_H

void tsr_signals_install(void);
int tsr_interrupted(void);

/* Temporary files that must not outlive an interrupted run (save's): the
 * handler removes them at once, because a launcher may follow SIGINT or
 * SIGTERM with SIGKILL before the run has cleaned up. add returns nonzero
 * when the path was registered (at most 64, each shorter than 1 KiB). */
int tsr_signals_add_temp(const char *path);
void tsr_signals_remove_temp(const char *path);

#endif
