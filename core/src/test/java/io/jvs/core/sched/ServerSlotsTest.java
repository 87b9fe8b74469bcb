package io.jvs.core.sched;

import io.jvs.core.net.IpAddress;
import io.jvs.core.service.ForwardMethod;
import io.jvs.core.service.RealServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The lblc/lblcr server identifiers: handed out from 1 upwards and never reused before 65535 have been,
 * then the lowest one no current member holds; a departed server's identifier keeps resolving to it.
 */
class ServerSlotsTest
{
    private static final RealServer[] NONE = new RealServer[0];

    private static RealServer server(final int n)
    {
        return new RealServer(IpAddress.ofV4(0x0A00_0000 + n), 80, ForwardMethod.NAT, 1);
    }

    @Test
    void shouldHandOutIdentifiersFromOneAndResolveThem()
    {
        final ServerSlots slots = new ServerSlots();
        final RealServer[] servers = new RealServer[200];
        for (int i = 0; i < servers.length; i++)
        {
            servers[i] = server(i);
            slots.assign(servers[i], NONE);
            assertThat(servers[i].schedulerSlot()).isEqualTo(i + 1);
        }
        for (int i = 0; i < servers.length; i++)
        {
            assertThat(slots.get(i + 1)).isSameAs(servers[i]);
        }
        assertThat(slots.get(ServerSlots.NONE)).isNull();
        assertThat(slots.get(-1)).isNull();
        assertThat(slots.get(servers.length + 1)).isNull();
        assertThat(slots.get(ServerSlots.MAX_SLOT)).isNull();
        assertThat(slots.get(ServerSlots.MAX_SLOT + 1)).isNull();
    }

    @Test
    void shouldResolveNoIdentifierAtTheEndOfTheFirstArray()
    {
        final ServerSlots slots = new ServerSlots();
        for (int i = 1; i <= 63; i++)
        {
            slots.assign(server(i), NONE);
        }
        assertThat(slots.get(63)).isNotNull();
        assertThat(slots.get(64)).isNull();
        final RealServer next = server(64);
        slots.assign(next, NONE);
        assertThat(slots.get(64)).isSameAs(next);
    }

    @Test
    void shouldReuseIdentifiersOnlyAfter65535AndThenTheLowestFree()
    {
        final ServerSlots slots = new ServerSlots();
        final RealServer first = server(0);
        slots.assign(first, NONE);
        for (int i = 2; i < ServerSlots.MAX_SLOT; i++)
        {
            slots.assign(server(i), NONE);
        }
        // Server 1 has departed, yet the 65535th identifier is new: 65535.
        final RealServer last = server(ServerSlots.MAX_SLOT);
        slots.assign(last, NONE);
        assertThat(last.schedulerSlot()).isEqualTo(ServerSlots.MAX_SLOT);
        assertThat(slots.get(ServerSlots.MAX_SLOT)).isSameAs(last);
        assertThat(slots.get(1)).isSameAs(first);

        // Then the lowest identifier no current member holds.
        final RealServer holdsTwo = slots.get(2);
        final RealServer reused = server(70_000);
        slots.assign(reused, new RealServer[] {first, holdsTwo, last});
        assertThat(reused.schedulerSlot()).isEqualTo(3);
        assertThat(slots.get(3)).isSameAs(reused);
        final RealServer again = server(70_001);
        slots.assign(again, new RealServer[] {holdsTwo, last});
        assertThat(again.schedulerSlot()).isEqualTo(1);
    }

    @Test
    void shouldReuseTheLastIdentifierWhenItIsTheOnlyOneFree()
    {
        final ServerSlots slots = new ServerSlots();
        final RealServer[] members = new RealServer[ServerSlots.MAX_SLOT - 1];
        for (int i = 0; i < ServerSlots.MAX_SLOT; i++)
        {
            final RealServer server = server(i);
            slots.assign(server, NONE);
            if (i < members.length)
            {
                members[i] = server;
            }
        }
        // 65535 has departed; every other identifier is held.
        final RealServer next = server(70_000);
        slots.assign(next, members);
        assertThat(next.schedulerSlot()).isEqualTo(ServerSlots.MAX_SLOT);
    }

    @Test
    void shouldRefuseAServerWhenAll65535IdentifiersAreHeld()
    {
        final ServerSlots slots = new ServerSlots();
        final RealServer[] members = new RealServer[ServerSlots.MAX_SLOT];
        for (int i = 0; i < members.length; i++)
        {
            members[i] = server(i);
            slots.assign(members[i], NONE);
        }
        assertThatIllegalStateException()
            .isThrownBy(() -> slots.assign(server(70_000), members))
            .withMessage("more than 65535 servers in one lblc/lblcr service");
    }
}
