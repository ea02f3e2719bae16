//go:build !unix

package report

const oNoFollow = 0
