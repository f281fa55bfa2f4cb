/* signals.c - see signals.h. */
#define _POSIX_C_SOURCE 200809L
#include "util/signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t interrupted;

/* A slot is filled before it is marked used and unmarked before it is
 * reused, so the handler only ever reads complete paths. */
#define MAX_TEMPS 64
static char temps[MAX_TEMPS][1024];
static volatile sig_atomic_t used[MAX_TEMPS];

static void on_signal(int sig) {
  if (sig != SIGALRM || !interrupted) interrupted = sig; /* a deadline never hides an interrupt */
  for (int i = 0; i < MAX_TEMPS; i++)
    if (used[i]) unlink(temps[i]); /* async-signal-safe */
}

/* The launcher's SIGCONT is its SIGTERM a second early (tsr_signals_launcher);
 * a SIGCONT from anyone else (a job control resume, a batch system's
 * scontrol resume) is left alone. */
static volatile sig_atomic_t launcher_pid, launcher_ending;
static void on_continue(int sig, siginfo_t *info, void *ctx) {
  (void)sig;
  (void)ctx;
  if (launcher_pid > 0 && info && info->si_code == SI_USER && info->si_pid == launcher_pid) {
    launcher_ending = 1;
    on_signal(SIGTERM);
  }
}

int tsr_signals_launcher_ending(void) { return launcher_ending != 0; }

void tsr_signals_launcher(int launcher) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  launcher_pid = launcher;
  if (launcher <= 0) return;
  sa.sa_sigaction = on_continue;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGCONT, &sa, NULL);
}

/* SIGALRM to handler after seconds (> 0; 0 cancels). */
static void alarm_after(double seconds, void (*handler)(int), int flags) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = handler;
  sa.sa_flags = flags;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval it;
  memset(&it, 0, sizeof it);
  it.it_value.tv_sec = (time_t)seconds;
  it.it_value.tv_usec = (suseconds_t)((seconds - (double)(time_t)seconds) * 1e6);
  if (seconds > 0 && !it.it_value.tv_sec && !it.it_value.tv_usec) it.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &it, NULL);
}

static volatile sig_atomic_t exit_code;
static void on_exit_alarm(int sig) {
  (void)sig;
  _exit(exit_code);
}

void tsr_signals_exit_after(double seconds, int code) {
  exit_code = code;
  alarm_after(seconds, on_exit_alarm, 0);
}

int tsr_temp_writer_gone(long pid) {
  return pid == (long)getpid() || (kill((pid_t)pid, 0) < 0 && errno == ESRCH);
}

int tsr_signals_add_temp(const char *path) {
  if (strlen(path) >= sizeof temps[0]) return 0;
  for (int i = 0; i < MAX_TEMPS; i++)
    if (!used[i]) {
      strcpy(temps[i], path);
      used[i] = 1;
      return 1;
    }
  return 0;
}

void tsr_signals_remove_temp(const char *path) {
  for (int i = 0; i < MAX_TEMPS; i++)
    if (used[i] && !strcmp(temps[i], path)) used[i] = 0;
}

void tsr_signals_install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  /* Past a file-size limit (ulimit -f) a write fails with EFBIG instead of
   * killing the process, so that the error is reported and the temporary
   * file removed. */
  sa.sa_handler = SIG_IGN;
  sigaction(SIGXFSZ, &sa, NULL);
}

int tsr_interrupted(void) { return interrupted != 0; }

int tsr_interrupt_signal(void) { return interrupted == SIGALRM ? 0 : (int)interrupted; }

/* A deadline is SIGALRM: it stops the run like SIGINT does, but only
 * tsr_signals_deadline_clear takes it back (an interrupt stays). */
void tsr_signals_deadline(double seconds) {
  /* the limit stops the work, not a system call under way */
  alarm_after(seconds, on_signal, SA_RESTART);
}

int tsr_signals_deadline_passed(void) { return interrupted == SIGALRM; }

void tsr_signals_deadline_clear(void) {
  struct itimerval it;
  memset(&it, 0, sizeof it);
  setitimer(ITIMER_REAL, &it, NULL);
  if (interrupted == SIGALRM) interrupted = 0;
}
