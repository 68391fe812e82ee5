module github.com/mgpu-sim/mgpu/examples/embedding

go 1.26.8

require (
	github.com/mgpu-sim/mgpu v0.0.0
	github.com/sarchlab/akita/v3 v3.1.0
)

require (
	github.com/go-sql-driver/mysql v1.7.1 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-sqlite3 v1.14.16 // indirect
	github.com/rs/xid v1.6.0 // indirect
	github.com/rs/zerolog v1.35.1 // indirect
	github.com/tebeka/atexit v0.3.0 // indirect
	golang.org/x/sys v0.35.0 // indirect
	gopkg.in/yaml.v3 v3.0.1 // indirect
)

replace github.com/mgpu-sim/mgpu => ../..
