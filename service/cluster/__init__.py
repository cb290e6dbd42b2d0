"""Broker mode: many tables, several machines, one scoreboard (NATS JetStream + PostgreSQL).

- :mod:`.worker`: ``tablemon worker --table ID --camera SOURCE --broker nats://...`` runs one
  table's vision anywhere and publishes what it sees; shots and table events go through a
  durable on-disk outbox (:mod:`.outbox`) with a message id each, so nothing is lost while
  the broker is away and nothing is stored twice when it is re-sent;
- :mod:`.consumer`: every ``tablemon serve`` with ``TABLEMON_BROKER`` set pulls the shots
  from the tables' durable JetStream consumers (one per table, shared by all API processes)
  and writes each in one transaction (idempotent by message id); health and live positions
  are ephemeral;
- :mod:`.playback`: a file played as a live camera, ground-truth shots, play in progress;
- :mod:`.notify`: each API process listens on PostgreSQL ``LISTEN/NOTIFY`` for the changes
  the others committed and refreshes its caches and SSE streams;
- :mod:`.subjects`: subject names, stream settings, message ids;
- :mod:`.natsconf`: a nats-server configuration with per-table worker permissions.
"""
