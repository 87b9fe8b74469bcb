package io.jvs.tools.simulate;

import io.jvs.core.net.FlowTuple;
import io.jvs.core.net.IpAddress;
import io.jvs.core.service.RealServer;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.VirtualService;

import java.util.HashMap;
import java.util.Map;

/**
 * Persistence templates as ip_vs_sched_persist keeps them (spec 15.4), for a simulation in which time
 * does not advance, so a template, once made, lasts to the end.
 * <p>
 * The template key is the client's network ({@code address & netmask}) with the service's address and
 * port (port 0 for FTP's port 21), or the firewall mark. A template whose server is still in the
 * service sends the connection there without asking the scheduler, even when the server's weight is 0
 * (expire_quiescent_template is off by default).
 */
final class PersistenceTemplates
{
    private record Key(ServiceKey service, IpAddress clientNetwork)
    {
    }

    private final Map<Key, RealServer> templates = new HashMap<>();

    /**
     * @param service the persistent service the flow belongs to.
     * @param flow    the flow.
     * @param decider asks the scheduler when no usable template exists.
     * @return the server, or null when the scheduler has none.
     */
    RealServer schedule(final VirtualService service, final FlowTuple flow, final java.util.function.Supplier<RealServer> decider)
    {
        final Key key = new Key(templateService(service.key()),
            flow.sourceAddress().mask(service.settings().netmaskPrefix()));
        final RealServer existing = templates.get(key);
        if (existing != null && existing.isAvailable())
        {
            return existing;
        }
        final RealServer chosen = decider.get();
        if (chosen == null)
        {
            return null;
        }
        if (existing != null)
        {
            existing.unbindTemplate();
        }
        templates.put(key, chosen);
        chosen.bindTemplate();
        return chosen;
    }

    private static ServiceKey templateService(final ServiceKey key)
    {
        if (!key.isFirewallMark() && key.port() == 21)
        {
            return ServiceKey.of(key.protocol(), key.address(), 0);
        }
        return key;
    }
}
