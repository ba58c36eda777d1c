# mlx5-dma-shell in batch mode on dev=mlx5_0 / mlx5_1 (Debian's libmlx5 on the software
# HCA's kernel side, devtools/sim-rdma -n 2 -a sim_fabric=1): device 0 path=direct,
# device 1 path=verbs, device 2 path=direct with sig=1, device 3 on mlx5_1; copies, SG,
# fills, PI ops, verify-then-respond pairs, remote writes over DC from mlx5_0 to mlx5_1.
show devices
setup 0 1 1024
setup 1 1 1024
start copy 0 0 4096 32 1
start fill 1 0 1000 16 2
sleep 300
stop all
start sg 0 0 3000 5 8 1
start sg 1 0 3000 5 8 2
sleep 300
stop all
show stats
attach dma_mlx5_s,dev=mlx5_0,sig=1
setup 2 2 256
start pi insert crc32c 2 0 8 8 1
start pi verify t10dif 2 1 4 8 2
sleep 300
stop all
start pi strip t10dif 2 0 4 8 1 bad 100
start pi convert crc64 2 1 3 8 2 bad 50
sleep 300
stop all
start respond 2 0 4 100 8 1
sleep 300
stop all
attach dma_mlx5_r,dev=mlx5_1,path=verbs
start remote 0 3 4096 16 1
sleep 300
stop all
show vchan 0 0
show stats
quit
