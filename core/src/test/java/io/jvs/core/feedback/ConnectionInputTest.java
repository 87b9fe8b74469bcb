package io.jvs.core.feedback;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ConnectionInputTest
{
    @Test
    void shouldDivideByTheMeanWhenServersReceivedConnections()
    {
        // 3 servers, 60 connections in all: the mean is 20.
        assertThat(ConnectionInput.of(30, 60, 3)).isEqualTo(1.5);
        assertThat(ConnectionInput.of(20, 60, 3)).isEqualTo(1.0);
        assertThat(ConnectionInput.of(10, 60, 3)).isEqualTo(0.5);
        assertThat(ConnectionInput.of(0, 60, 3)).isEqualTo(0.0);
    }

    @Test
    void shouldBeNeutralWhenNoServerReceivedAConnection()
    {
        assertThat(ConnectionInput.of(0, 0, 3)).isEqualTo(1.0);
    }

    @Test
    void shouldRejectCountsWhenTheyCannotBelongTogether()
    {
        assertThatIllegalArgumentException().isThrownBy(() -> ConnectionInput.of(-1, 10, 2));
        assertThatIllegalArgumentException().isThrownBy(() -> ConnectionInput.of(11, 10, 2));
        assertThatIllegalArgumentException().isThrownBy(() -> ConnectionInput.of(0, 0, 0));
    }
}
