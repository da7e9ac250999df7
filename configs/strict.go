package configs

import (
	"bytes"
	"errors"
	"io"
	"reflect"

	"go.yaml.in/yaml/v3"
)

func decodeStrict(data []byte, v any) error {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

func reflectValue(p any) reflect.Value { return reflect.ValueOf(p).Elem() }
