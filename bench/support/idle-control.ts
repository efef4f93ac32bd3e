// A process that does nothing but run the event-loop gap probe's 1 ms timer (cql-throughput.ts --gap-probe starts it
// beside the server and the clients): its gaps are what any process on the machine suffers at that moment with no
// work of its own, waiting for a CPU behind the bench's processes or stalled outside the guest's scheduler (the
// "neither" column: the hypervisor, the kernel's own threads). The floor under the server's and the clients' gaps in
// the same run. It exits on SIGTERM, when the probe writes its file.

setInterval(() => {}, 1 << 30);
process.on('SIGTERM', () => process.exit(0));
