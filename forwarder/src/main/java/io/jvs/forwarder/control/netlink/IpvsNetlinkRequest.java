package io.jvs.forwarder.control.netlink;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * One IPVS generic netlink request, decoded and checked as far as the kernel checks it before looking at its
 * tables ({@link IpvsNetlinkCodec#decode}). {@link Change}s go to {@link IpvsNetlinkBackend#apply}; the queries are
 * answered from the backend's lists.
 */
public sealed interface IpvsNetlinkRequest
{
    /** A request that changes state: the backend answers 0 or an errno. */
    sealed interface Change extends IpvsNetlinkRequest
    {
    }

    /** {@code IPVS_CMD_NEW_SERVICE} ({@code ipvsadm -A}): EEXIST when there is one. */
    record NewService(IpvsServiceKey service, IpvsServiceOptions options) implements Change
    {
        public NewService
        {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(options, "options");
        }
    }

    /** {@code IPVS_CMD_SET_SERVICE} ({@code ipvsadm -E}): ESRCH when there is none. */
    record SetService(IpvsServiceKey service, IpvsServiceOptions options) implements Change
    {
        public SetService
        {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(options, "options");
        }
    }

    /** {@code IPVS_CMD_DEL_SERVICE} ({@code ipvsadm -D}): ESRCH when there is none. */
    record DelService(IpvsServiceKey service) implements Change
    {
        public DelService
        {
            Objects.requireNonNull(service, "service");
        }
    }

    /** {@code IPVS_CMD_NEW_DEST} ({@code ipvsadm -a}): ESRCH without the service, EEXIST when the server is there. */
    record NewDest(IpvsServiceKey service, IpvsDestination destination) implements Change
    {
        public NewDest
        {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(destination, "destination");
        }
    }

    /** {@code IPVS_CMD_SET_DEST} ({@code ipvsadm -e}): ESRCH without the service, ENOENT without the server. */
    record SetDest(IpvsServiceKey service, IpvsDestination destination) implements Change
    {
        public SetDest
        {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(destination, "destination");
        }
    }

    /** {@code IPVS_CMD_DEL_DEST} ({@code ipvsadm -d}): only the destination's address and port are set. */
    record DelDest(IpvsServiceKey service, IpvsDestination destination) implements Change
    {
        public DelDest
        {
            Objects.requireNonNull(service, "service");
            Objects.requireNonNull(destination, "destination");
        }
    }

    /**
     * {@code IPVS_CMD_ZERO} ({@code ipvsadm -Z}): one service's counters, or every counter.
     *
     * @param service the service, or null for all.
     */
    record Zero(IpvsServiceKey service) implements Change
    {
    }

    /** {@code IPVS_CMD_FLUSH} ({@code ipvsadm -C}). */
    record Flush() implements Change
    {
    }

    /** {@code IPVS_CMD_SET_CONFIG} ({@code ipvsadm --set}): each timeout absent (or 0) in the request is kept. */
    record SetConfig(OptionalInt tcp, OptionalInt tcpFin, OptionalInt udp) implements Change
    {
        public SetConfig
        {
            Objects.requireNonNull(tcp, "tcp");
            Objects.requireNonNull(tcpFin, "tcpFin");
            Objects.requireNonNull(udp, "udp");
        }

        /** @return the timeouts after this request, given those before. */
        public IpvsTimeouts applyTo(final IpvsTimeouts current)
        {
            return new IpvsTimeouts(tcp.orElse(current.tcp()), tcpFin.orElse(current.tcpFin()),
                udp.orElse(current.udp()));
        }
    }

    /** {@code IPVS_CMD_NEW_DAEMON} ({@code ipvsadm --start-daemon}). */
    record NewDaemon(IpvsDaemon daemon) implements Change
    {
        public NewDaemon
        {
            Objects.requireNonNull(daemon, "daemon");
        }
    }

    /** {@code IPVS_CMD_DEL_DAEMON} ({@code ipvsadm --stop-daemon}). */
    record DelDaemon(int state) implements Change
    {
    }

    /** {@code IPVS_CMD_GET_SERVICE} without {@code NLM_F_DUMP}: one service, ESRCH when there is none. */
    record GetService(IpvsServiceKey service) implements IpvsNetlinkRequest
    {
        public GetService
        {
            Objects.requireNonNull(service, "service");
        }
    }

    /** {@code IPVS_CMD_GET_SERVICE} with {@code NLM_F_DUMP}: every service. */
    record ListServices() implements IpvsNetlinkRequest
    {
    }

    /**
     * {@code IPVS_CMD_GET_DEST} (a dump): a service's real servers.
     *
     * @param service the service, or null when the request names none validly (the kernel's dump is then empty).
     */
    record ListDests(IpvsServiceKey service) implements IpvsNetlinkRequest
    {
    }

    /** {@code IPVS_CMD_GET_INFO}. */
    record GetInfo() implements IpvsNetlinkRequest
    {
    }

    /** {@code IPVS_CMD_GET_CONFIG}: the timeouts. */
    record GetConfig() implements IpvsNetlinkRequest
    {
    }

    /** {@code IPVS_CMD_GET_DAEMON} (a dump). */
    record ListDaemons() implements IpvsNetlinkRequest
    {
    }
}
