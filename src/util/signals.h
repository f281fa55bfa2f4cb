/*
 * signals.h - Ctrl-C and termination: the handler only raises a flag; the
 * executor stops taking chunks when it sees it and the CLI ends every rank
 * without leaving a results file behind. SIGXFSZ (a file-size limit) is
 * ignored, so that the write fails with EFBIG and is cleaned up.
 */
#ifndef TSR_SIGNALS_H
#define TSR_SIGNALS_H

void tsr_signals_install(void);

/* launcher: the pid of the process that started this one when it is Open
 * MPI's launcher (mpirun or its daemon), else 0. Open MPI ends a job it was
 * told to end (Ctrl-C or SIGTERM to mpirun) by sending its ranks SIGCONT,
 * then SIGTERM only odls_base_sigkill_timeout (1 s) later: a SIGCONT from
 * the launcher is taken as the interrupt it announces, so that every rank is
 * gone at once instead of a second later. */
void tsr_signals_launcher(int launcher);
/* Whether the launcher's SIGCONT came: it is ending the job. */
int tsr_signals_launcher_ending(void);

/* Ends the process with status code if it is still running seconds from
 * now (a bounded wait for a step that may never return, such as
 * MPI_Finalize while the launcher is ending the job). */
void tsr_signals_exit_after(double seconds, int code);
int tsr_interrupted(void);

/* The signal that interrupted the run (SIGINT, SIGTERM), or 0: none did,
 * or only a deadline passed. */
int tsr_interrupt_signal(void);

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

/* Whether the writer of a temporary "NAME.tmp-PID" is gone, so that the
 * temporary may be removed: no process of this host has pid (ESRCH; a live
 * process of another user, EPERM, keeps it), or pid is this process, which
 * has written no temporary yet when it looks (an old pid reused). A writer
 * on another node of a shared file system looks gone too. */
int tsr_temp_writer_gone(long pid);

#endif
