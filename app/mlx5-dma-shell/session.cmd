# mlx5-dma-shell session: run with
#   mlx5-dma-shell <EAL: two dma_mlx5 vdevs, lcores 0-2> -- --cmdline-file session.cmd --batch
# A copy workload on device 0 and a fill workload on device 1, a QP fatal error
# on the copy vchan and its recovery, delayed completions, then the stats.
show devices
setup 0 1 1024
setup 1 1 1024
start copy 0 0 4096 32 1
start fill 1 0 1000 16 2
sleep 500
show stats
fault 0 0 qp-fatal
sleep 300
show vchan 0 0
fault 1 0 delay 20000
sleep 300
show stats
stop all
quit
