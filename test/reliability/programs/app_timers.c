/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * app_timers.c -- reliability row 6: the program owns SIGPROF (an SA_SIGINFO
 * handler, setitimer(ITIMER_PROF, 10 ms)) and a POSIX timer on
 * CLOCK_MONOTONIC delivering SIGRTMIN+1 every 10 ms, and burns 1 CPU-second.
 * Each handler also counts deliveries that are not its own timer's
 * ("foreign": wrong si_code or timer id).  Prints ticks/10 (rounded) for
 * both, and the foreign count, so stdout can be compared with a baseline
 * run; exact tick counts go to stderr.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

static volatile sig_atomic_t prof_ticks, rt_ticks, foreign;
static timer_t rt_timer;
static volatile double sink;

static void
on_prof(int sig, siginfo_t *info, void *uc)
{
    (void)sig;
    (void)uc;
    if (info->si_code == SI_KERNEL)
        prof_ticks++;
    else
        foreign++;
}

static void
on_rt(int sig, siginfo_t *info, void *uc)
{
    (void)sig;
    (void)uc;
    if (info->si_code == SI_TIMER && info->si_value.sival_int == 1234) {
        /* expirations, not deliveries: those that came while the signal was
         * pending (the process off the CPU on a loaded machine) are overruns
         * (timer_getoverrun is async-signal-safe, POSIX.1-2008 2.4.3) */
        int over = timer_getoverrun(rt_timer);

        rt_ticks += 1 + (over > 0 ? over : 0);
    } else {
        foreign++;
    }
}

int
main(void)
{
    struct sigaction sa;
    struct itimerval it = {{0, 10000}, {0, 10000}};
    struct itimerspec its = {{0, 10000000}, {0, 10000000}};
    struct sigevent sev;
    struct timespec t0, t, w0, w1;

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_prof;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGPROF, &sa, NULL) != 0)
        return 90;
    sa.sa_sigaction = on_rt;
    if (sigaction(SIGRTMIN + 1, &sa, NULL) != 0)
        return 91;
    memset(&sev, 0, sizeof(sev));
    sev.sigev_notify = SIGEV_SIGNAL;
    sev.sigev_signo = SIGRTMIN + 1;
    sev.sigev_value.sival_int = 1234;
    if (timer_create(CLOCK_MONOTONIC, &sev, &rt_timer) != 0 ||
        timer_settime(rt_timer, 0, &its, NULL) != 0 || setitimer(ITIMER_PROF, &it, NULL) != 0)
        return 92;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    clock_gettime(CLOCK_MONOTONIC, &w0);
    do {
        for (int i = 0; i < 100000; i++)
            sink = sink + i * 0.5;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 1.0);
    it.it_value.tv_usec = it.it_interval.tv_usec = 0;
    setitimer(ITIMER_PROF, &it, NULL);
    timer_delete(rt_timer);
    clock_gettime(CLOCK_MONOTONIC, &w1);
    /* The real-time timer ticks with the wall clock, which a loaded machine stretches: its
     * expirations per wall-clock second (about 100) are what compares across runs. */
    fprintf(stderr, "prof ticks %d, rt ticks %d, rt per s %.1f\n", (int)prof_ticks, (int)rt_ticks,
            rt_ticks / ((double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9));
    printf("foreign %d\n", (int)foreign);
    return 0;
}
