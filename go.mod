module github.com/dsight/dsight

go 1.26.8

require (
	github.com/apache/arrow/go/v17 v17.0.0 // indirect
	github.com/evanw/esbuild v0.28.2 // indirect
	github.com/klauspost/compress v1.20.4 // indirect
)
