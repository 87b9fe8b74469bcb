package io.jvs.core.service;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.net.Protocol;

import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Persistence templates (ip_vs_sched_persist, spec 15.4): the server a client network was given,
 * remembered per service so its next connections go to the same server without asking the scheduler.
 * <p>
 * The key is the client's address masked by the service's netmask, with the service (port 0 for FTP's
 * port 21, whose data connections use other ports). A template is re-armed to the full persistence
 * timeout on every use; it cannot expire while connections it placed are open, and is then re-armed
 * 60 s at a time, as the kernel's timer does. A template whose server has left the service is dropped
 * and the client scheduled afresh; one whose server is quiesced (weight 0) is still followed, as with
 * the kernel's default expire_quiescent_template = 0.
 * <p>
 * One thread owns an instance: this serves the simulation and offline tools. The forwarder's workers
 * share templates through their connection table.
 */
public final class PersistenceTemplates
{
    /** How long the kernel re-arms a template that still controls connections. */
    public static final long CONTROLLED_REARM_NS = TimeUnit.SECONDS.toNanos(60);

    /** One client network's server. */
    public static final class Template
    {
        private final RealServer server;
        private long expiresNs;
        private int controlled;

        private Template(final RealServer server)
        {
            this.server = server;
        }

        public RealServer server()
        {
            return server;
        }

        /**
         * @return how many open connections this template placed.
         */
        public int controlled()
        {
            return controlled;
        }
    }

    private record Key(ServiceKey service, Protocol protocol, IpAddress clientNetwork)
    {
    }

    private final Map<Key, Template> templates = new HashMap<>();
    private final boolean expireQuiescent;

    /**
     * @param expireQuiescent the kernel's expire_quiescent_template: when true, a template whose server
     *                        has weight 0 is dropped instead of followed.
     */
    public PersistenceTemplates(final boolean expireQuiescent)
    {
        this.expireQuiescent = expireQuiescent;
    }

    /**
     * Places a new connection of a persistent service and counts it against its template.
     *
     * @param service   the persistent service.
     * @param flow      the connection's first packet.
     * @param nowNs     the time.
     * @param scheduler asks the service's scheduler when no valid template exists.
     * @return the template holding the server, or null when the scheduler found none.
     */
    public Template open(
        final VirtualService service, final FlowTuple flow, final long nowNs, final Supplier<RealServer> scheduler)
    {
        final Key key = keyOf(service, flow);
        Template template = templates.get(key);
        if (template != null && !isValid(template, nowNs))
        {
            templates.remove(key);
            template.server.unbindTemplate();
            template = null;
        }
        if (template == null)
        {
            final RealServer server = scheduler.get();
            if (server == null)
            {
                return null;
            }
            template = new Template(server);
            server.bindTemplate();
            templates.put(key, template);
        }
        template.expiresNs = nowNs + persistenceNs(service);
        template.controlled++;
        return template;
    }

    /**
     * A connection the template placed has ended.
     *
     * @param template the template {@link #open} returned.
     */
    public void close(final Template template)
    {
        template.controlled--;
    }

    /**
     * Drops every template that has expired, as the kernel's timers would have by now.
     *
     * @param nowNs the time.
     * @return how many were dropped.
     */
    public int expire(final long nowNs)
    {
        int dropped = 0;
        for (final Iterator<Template> it = templates.values().iterator(); it.hasNext(); )
        {
            final Template template = it.next();
            if (!isAlive(template, nowNs))
            {
                it.remove();
                template.server.unbindTemplate();
                dropped++;
            }
        }
        return dropped;
    }

    /**
     * @return how many templates exist.
     */
    public int size()
    {
        return templates.size();
    }

    private boolean isValid(final Template template, final long nowNs)
    {
        final RealServer server = template.server;
        if (!server.isAvailable() || (expireQuiescent && server.weight() == 0))
        {
            return false;
        }
        return isAlive(template, nowNs);
    }

    /** Applies the timer: expired unless it still controls connections, then re-armed 60 s at a time. */
    private static boolean isAlive(final Template template, final long nowNs)
    {
        if (nowNs - template.expiresNs < 0)
        {
            return true;
        }
        if (template.controlled == 0)
        {
            return false;
        }
        final long periods = (nowNs - template.expiresNs) / CONTROLLED_REARM_NS + 1;
        template.expiresNs += periods * CONTROLLED_REARM_NS;
        return true;
    }

    private static Key keyOf(final VirtualService service, final FlowTuple flow)
    {
        final ServiceKey key = service.key();
        final ServiceKey templateService = !key.isFirewallMark() && key.port() == 21 ?
            ServiceKey.of(key.protocol(), key.address(), 0) : key;
        final Protocol protocol = key.isFirewallMark() ? null : flow.protocol();
        return new Key(templateService, protocol, flow.sourceAddress().mask(service.settings().netmaskPrefix()));
    }

    private static long persistenceNs(final VirtualService service)
    {
        return TimeUnit.SECONDS.toNanos(service.settings().persistenceSeconds());
    }
}
