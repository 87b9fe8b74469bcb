package io.jvs.core.rules;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.ServiceKey;
import io.jvs.core.service.ServiceSettings;
import io.jvs.core.service.ServiceTable;

/**
 * One parsed ipvsadm command that changes a configuration.
 */
public sealed interface RuleCommand
{
    /**
     * Applies the command.
     *
     * @param table the configuration.
     * @throws IllegalArgumentException with ipvsadm's wording when the table refuses it; the table is unchanged.
     */
    void applyTo(ServiceTable table);

    /**
     * -A: add a virtual service.
     *
     * @param key               the service.
     * @param settings          scheduler, flags, persistence.
     * @param persistenceEngine the {@code --pe} name, empty for none (jvs has none, so the kernel checks refuse
     *                          any other).
     */
    record AddService(ServiceKey key, ServiceSettings settings, String persistenceEngine) implements RuleCommand
    {
        /**
         * @param key      the service.
         * @param settings its settings, with no persistence engine.
         */
        public AddService(final ServiceKey key, final ServiceSettings settings)
        {
            this(key, settings, "");
        }

        @Override
        public void applyTo(final ServiceTable table)
        {
            requireNoPersistenceEngine(persistenceEngine);
            table.addService(key, settings);
        }
    }

    /**
     * -E: edit a virtual service; every setting is replaced, as ipvsadm sends them all.
     *
     * @param key               the service.
     * @param settings          the new settings.
     * @param persistenceEngine the {@code --pe} name, empty for none.
     */
    record EditService(ServiceKey key, ServiceSettings settings, String persistenceEngine) implements RuleCommand
    {
        /**
         * @param key      the service.
         * @param settings its new settings, with no persistence engine.
         */
        public EditService(final ServiceKey key, final ServiceSettings settings)
        {
            this(key, settings, "");
        }

        @Override
        public void applyTo(final ServiceTable table)
        {
            requireNoPersistenceEngine(persistenceEngine);
            table.editService(key, settings);
        }
    }

    /**
     * -Z: zero the statistics of one service or of all. The table keeps no statistics (the workers do), so on a
     * table this only checks that the service exists.
     *
     * @param key the service, or null for every service.
     */
    record Zero(ServiceKey key) implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            if (key != null && table.find(key) == null)
            {
                throw new IllegalArgumentException("No such service");
            }
        }
    }

    /**
     * -D: delete a virtual service.
     *
     * @param key the service.
     */
    record DeleteService(ServiceKey key) implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            table.deleteService(key);
        }
    }

    /**
     * -C: delete every service.
     */
    record Clear() implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            table.clear();
        }
    }

    /**
     * -a or -e: add or edit a real server.
     *
     * @param edit           true for -e.
     * @param key            the service.
     * @param address        the server's address.
     * @param port           its port.
     * @param forwardMethod  -g, -i or -m.
     * @param weight         -w.
     * @param upperThreshold -x.
     * @param lowerThreshold -y.
     */
    record PutServer(
        boolean edit,
        ServiceKey key,
        IpAddress address,
        int port,
        ForwardMethod forwardMethod,
        int weight,
        int upperThreshold,
        int lowerThreshold) implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            if (edit)
            {
                table.editServer(key, address, port, forwardMethod, weight, upperThreshold, lowerThreshold);
            }
            else
            {
                table.addServer(key, address, port, forwardMethod, weight, upperThreshold, lowerThreshold);
            }
        }
    }

    /**
     * -d: delete a real server.
     *
     * @param key     the service.
     * @param address the server's address.
     * @param port    its port.
     */
    record DeleteServer(ServiceKey key, IpAddress address, int port) implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            table.deleteServer(key, address, port);
        }
    }

    /**
     * --set tcp tcpfin udp.
     *
     * @param tcpSeconds    established TCP timeout.
     * @param tcpFinSeconds closing TCP timeout.
     * @param udpSeconds    UDP timeout.
     */
    record SetTimeouts(int tcpSeconds, int tcpFinSeconds, int udpSeconds) implements RuleCommand
    {
        @Override
        public void applyTo(final ServiceTable table)
        {
            table.setTimeouts(tcpSeconds, tcpFinSeconds, udpSeconds);
        }
    }

    private static void requireNoPersistenceEngine(final String persistenceEngine)
    {
        if (!persistenceEngine.isEmpty())
        {
            // ip_vs_add_service: no module ip_vs_pe_NAME, ENOENT.
            throw new IllegalArgumentException("Scheduler or persistence engine not found");
        }
    }
}
