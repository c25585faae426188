package controller

import (
	"os"
	"testing"

	"github.com/cozystack/kubernetes-worker-image/internal/apiserver"
)

func TestMain(m *testing.M) { os.Exit(apiserver.Main(m)) }
