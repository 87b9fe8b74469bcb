package io.jvs.core.control;

import io.jvs.core.rules.RuleCommand;
import io.jvs.core.service.ServiceKey;

/**
 * One ipvsadm command line, parsed: a change the kernel applies or refuses, or a question whose answer is printed.
 * {@link IpvsadmCommandLine} makes them; a backend (the daemon, or {@link IpvsModel}) answers them.
 */
public sealed interface IpvsadmRequest
{
    /**
     * -A, -E, -D, -C, -a, -e, -d, --set or -Z: a change.
     *
     * @param command the change.
     */
    record Change(RuleCommand command) implements IpvsadmRequest
    {
    }

    /**
     * -L (or no arguments): every service, or one.
     *
     * @param service the one service of {@code -L -t VIP:PORT}, or null for all.
     * @param format  the listing options.
     */
    record ListServices(ServiceKey service, ListFormat format) implements IpvsadmRequest
    {
    }

    /**
     * -L -c: the connection entries.
     *
     * @param format -n and --persistent-conn matter.
     */
    record ListConnections(ListFormat format) implements IpvsadmRequest
    {
    }

    /** -L --timeout. */
    record ListTimeouts() implements IpvsadmRequest
    {
    }

    /** -L --daemon. */
    record ListDaemon() implements IpvsadmRequest
    {
    }

    /**
     * -S: the rules.
     *
     * @param numeric -n.
     */
    record Save(boolean numeric) implements IpvsadmRequest
    {
    }

    /** -R: read rule lines from standard input. */
    record Restore() implements IpvsadmRequest
    {
    }

    /**
     * --start-daemon or --stop-daemon.
     *
     * @param start  true to start.
     * @param master true for master, false for backup.
     */
    record SyncDaemon(boolean start, boolean master) implements IpvsadmRequest
    {
    }

    /** -h. */
    record Help() implements IpvsadmRequest
    {
    }

    /** -v. */
    record Version() implements IpvsadmRequest
    {
    }
}
