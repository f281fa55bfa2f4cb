/*
 * signals.h - Ctrl-C and termination: the handler only raises a flag; the
 * executor stops taking chunks when it sees it and the CLI ends every rank
 * without leaving a results file behind. SIGXFSZ (a file-size limit) is
 * ignored, so that the write fails with EFBIG and is cleaned up.
 */
#ifndef TSR_SIGNALS_H
#define TSR_SIGNALS_H

void tsr_signals_install(void);
int tsr_interrupted(void);

/* A time limit (a sweep's --trial-timeout): after seconds (> 0; 0 cancels)
 * the run stops as if interrupted, and deadline_passed says it was the
 * limit. deadline_clear cancels the limit and forgets that it passed, never
 * a real interrupt. */
void tsr_signals_deadline(double seconds);
int tsr_signals_deadline_passed(void);
void tsr_signals_deadline_clear(void);

/* Temporary files that must not outlive an interrupted run (save's): the
 * handler removes them at once, because a launcher may follow SIGINT or
 * SIGTERM with SIGKILL before the run has cleaned up. add returns nonzero
 * when the path was registered (at most 64, each shorter than 1 KiB). */
int tsr_signals_add_temp(const char *path);
void tsr_signals_remove_temp(const char *path);

#endif
