/*
 * signals.h - Ctrl-C and termination: the handler only raises a flag; the
 * executor stops taking chunks when it sees it and the CLI ends every rank
 * without leaving a results file behind.
 */
#ifndef TSR_SIGNALS_H
#define TSR_SIGNALS_H

void tsr_signals_install(void);
int tsr_interrupted(void);

#endif
